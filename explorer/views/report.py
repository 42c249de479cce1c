"""Static, offline HTML report: the widget's panels in one self-contained file.

Plain plotly figures (plotly.js inlined once, no CDN, no require.js, no widget manager — see
TESTING.md for why not ``embed_minimal_html``) plus a small script of our own (:mod:`.report_js`)
for linked selection, the details panel, the findings list, the device filter and search.

Everything the script needs per plan — both figures, precomputed details HTML for every tensor and
instruction, search labels, the edge list for highlighting — sits in one
``<script type="application/json">`` block written with :func:`script_json`, so no string from the
file can end the script element; HTML fragments in it were escaped when they were built.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
from plotly.offline import get_plotlyjs

from ..analysis.types import Finding
from ..model import Program
from .details import (
    CSS,
    device_table,
    finding_details,
    finding_label,
    instruction_details,
    value_details,
)
from .escape import html_attr, html_text, script_json, visible
from .graph import TRACE, build_graph_figure
from .memory import build_memory_figure
from .palette import BLOCK_OPACITY, OP_STYLES, TENSOR_OPACITY, device_style, ordered_devices
from .prepare import PlanView, default_plan, plan_view, program_summary, totals_view, wants_lod
from .report_js import SCRIPT
from .requirements_html import REQ_CSS, runtime_needs_html
from .report_lod_js import LOD_SCRIPT
from .selection import Selection

__all__ = ["report_html", "write_report"]

_PAGE_CSS = """
body{margin:0;background:#F6F8FA}
.dx-page{max-width:1280px;margin:0 auto;padding:14px 18px 28px}
.dx-head{display:flex;align-items:baseline;gap:10px;flex-wrap:wrap;margin-bottom:8px}
.dx-head h1{font-size:18px;margin:0}
.dx-controls{display:flex;gap:14px;align-items:center;flex-wrap:wrap;margin:6px 0 10px}
.dx-controls label{color:#6E7781}
.dx-controls select,.dx-controls input{font:inherit;padding:3px 6px;border:1px solid #D0D7DE;border-radius:6px;background:#fff}
.dx-controls input{width:260px}
.dx-dev{font:inherit;padding:2px 10px;border:1px solid #D0D7DE;border-radius:14px;background:#fff;cursor:pointer;margin-right:4px}
.dx-dev[aria-pressed=false]{opacity:.45;text-decoration:line-through}
.dx-row{display:flex;flex-wrap:wrap;gap:12px;align-items:stretch}
.dx-card{background:#fff;border:1px solid #D0D7DE;border-radius:8px;padding:6px;min-width:0}
.dx-graph{flex:3 1 460px}
.dx-side{flex:2 1 280px;display:flex;flex-direction:column;gap:8px;min-width:0}
.dx-side h3,.dx-section h3{font-size:13px;margin:2px 4px 6px;color:#1F2328}
#dx-details{padding:4px 8px;max-height:420px;overflow:auto}
#dx-findings{list-style:none;margin:0;padding:0;max-height:260px;overflow:auto}
#dx-findings li button{all:unset;display:block;box-sizing:border-box;width:100%;padding:4px 8px;border-radius:6px;
  cursor:pointer;overflow-wrap:anywhere}
#dx-findings li button:hover{background:#F3F4F6}
#dx-findings li button[aria-current=true]{background:#DDF4FF}
.dx-section{margin-top:12px}
.dx-sev-error{color:#B31B1B}
"""


def _plan_payload(view: PlanView, findings: list[Finding], all_findings: list[Finding]) -> dict:
    if view.lod:
        return _lod_plan_payload(view, findings, all_findings)
    plan, analysis, geom = view.plan, view.analysis, view.geometry
    graph = build_graph_figure(plan, analysis, geometry=geom)
    memory = build_memory_figure(plan, analysis)
    return {
        "name": plan.name,
        "summary": visible(program_summary(view, findings)),
        "graph": graph.to_plotly_json(),
        "memory": memory.to_plotly_json(),
        "totals": device_table(plan, analysis) + runtime_needs_html(view),
        "details": {"v": {str(v): value_details(plan, analysis, v) for v in geom.tensors.tolist()},
                    "i": {str(i): instruction_details(plan, analysis, i) for i in range(len(plan.instructions))}},
        "labels": {"v": {str(t.index): visible(t.label) for t in plan.tensors},
                   "i": [visible(ins.label) for ins in plan.instructions]},
        "edges": [[s[0], s[1], d[0], d[1]] for s, d, _ in geom.edges],
        "opSymbols": {str(i): OP_STYLES[k]["symbol"] for i, k in zip(geom.ops.tolist(), geom.op_kinds)},
        "tensorDevices": [str(d) for d in geom.tensor_devices],
        "blockDevices": [[str(b.device) for b in a.blocks] for a in analysis.memory.arenas],
        "devices": [[str(d), device_style(d).color] for d in
                    ordered_devices(list(geom.tensor_devices) + [a.device for a in analysis.memory.arenas])],
        "nInstructions": len(plan.instructions),
        "findingDetails": {str(all_findings.index(f)): finding_details(plan, f) for f in findings},
    }


def _lod_plan_payload(view: PlanView, findings: list[Finding], all_findings: list[Finding]) -> dict:
    """A big plan: the overview and binned memory map as first drawn, and the tables the page's script
    explores them with (:mod:`.report_lod`); no HTML per tensor or instruction."""
    from .report_lod import lod_devices, lod_payload

    plan = view.plan
    return {
        "name": plan.name,
        "summary": visible(program_summary(view, findings)),
        "graph": view.overview.figure().to_plotly_json(),
        "memory": view.memory.figure().to_plotly_json(),
        "totals": device_table(plan, totals_view(view)) + runtime_needs_html(view),
        "details": {"v": {}, "i": {}},
        "devices": lod_devices(view),
        "nInstructions": len(plan.instructions),
        "findingDetails": {str(all_findings.index(f)): finding_details(plan, f) for f in findings},
        "lod": lod_payload(view),
    }


def _plain(obj):
    """numpy values as JSON (NaN, the edge separator, as null)."""
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind != "f":
            return obj.tolist()
        if obj.ndim > 1:  # a heatmap's z: gaps (NaN) as null, float32 noise rounded away
            return np.where(np.isnan(obj), None, np.round(obj.astype(np.float64), 4)).tolist()
        return [None if math.isnan(x) else x for x in obj.tolist()]
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"cannot put {type(obj).__name__} in the report")


def _to_json(payload: dict) -> str:
    # not plotly's encoder: it writes every "<" as \u003c, which grows HTML fragments sixfold;
    # script_json makes the text safe for the script element instead
    return json.dumps(payload, default=_plain, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


def report_html(program: Program, *, findings: list[Finding] | None = None, plan: str | None = None,
                selected: Selection | None = None, title: str | None = None,
                views: dict[str, PlanView] | None = None, lod: bool | None = None) -> str:
    """The whole report page as a string (see :func:`write_report`).

    ``findings`` default to ``explorer.check(program)``; ``views`` (plan name -> PlanView) reuse
    analyses already made (the widget's, the CLI's); missing ones are computed — at a level of detail
    for big plans (``lod=None``; True/False forces it), as the widget does.
    """
    if findings is None:
        from ..analysis import check
        findings = list(check(program))
    if not program.plans:
        return _empty_report(program, findings, title)
    views = views or {}
    plans = [views.get(p.name) or plan_view(p, program, lod=wants_lod(p, lod)) for p in program.plans]
    payload = {
        "trace": TRACE,
        "opacity": {"tensor": TENSOR_OPACITY, "block": BLOCK_OPACITY},
        "plan": plan or default_plan(program),
        "plans": [_plan_payload(v, [f for f in findings if f.plan == v.plan.name], findings) for v in plans],
        "findings": [{"label": finding_label(f), "plan": f.plan, "severity": f.severity,
                      "values": list(f.values), "instructions": list(f.instructions)} for f in findings],
        "selected": None if not selected else {
            "plan": selected.plan, "values": list(selected.values), "instructions": list(selected.instructions),
            "query": selected.query,
            "finding": str(findings.index(selected.finding)) if selected.finding in findings else None},
    }
    name = title or (Path(program.source).name if program.source else "program")
    plan_options = "".join(f"<option value=\"{html_attr(v.plan.name)}\">{html_text(v.plan.name)}</option>" for v in plans)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html_text(name)} · ExecuTorch device explorer</title>
<style>{CSS}{_PAGE_CSS}{REQ_CSS}</style>
<script>{get_plotlyjs()}</script>
</head><body><div class="dx-page dx-root">
<div class="dx-head"><h1>{html_text(name)}</h1><span class="dx-muted" id="dx-summary"></span></div>
<div class="dx-controls">
 <label>plan <select id="dx-plan"{' disabled' if len(plans) < 2 else ''}>{plan_options}</select></label>
 <span><span class="dx-muted">devices </span><span id="dx-devices"></span></span>
 <input id="dx-search" type="search" placeholder="search: name, op, %value, #op" aria-label="search">
</div>
<div class="dx-row">
 <div class="dx-card dx-graph"><div id="dx-graph"></div></div>
 <div class="dx-side">
  <div class="dx-card"><div id="dx-details"></div></div>
  <div class="dx-card"><h3>Findings <span class="dx-muted">({len(findings)}, from explorer.check — click one to select it)</span></h3>
   <ul id="dx-findings"></ul></div>
 </div>
</div>
<div class="dx-section dx-card"><h3>Per device</h3><div id="dx-totals"></div></div>
<div class="dx-section dx-card"><h3>Memory map <span class="dx-muted">— one lane per arena; each tensor spans its lifetime (x) and bytes (y)</span></h3>
 <div id="dx-memory"></div></div>
<p class="dx-muted">Made by executorch-device-explorer from {html_text(name)}; works offline.</p>
</div>
<script type="application/json" id="dx-data">{script_json(encoded=_to_json(payload))}</script>
<script>{LOD_SCRIPT}{SCRIPT}</script>
</body></html>
"""


def _empty_report(program: Program, findings: list[Finding], title: str | None) -> str:
    """A program with no execution plans (valid, if useless): say so, with its findings; no graph to draw."""
    name = title or (Path(program.source).name if program.source else "program")
    items = "".join(f"<li>{html_text(finding_label(f))}</li>" for f in findings) or "<li>no findings</li>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html_text(name)} · ExecuTorch device explorer</title>
<style>{CSS}{_PAGE_CSS}</style></head><body><div class="dx-page dx-root">
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
