"""Static, offline HTML of a placement diff: ``device-explorer diff A B --html out.html`` and ``Diff.save_html``.

Same road as the single-program report (:mod:`.report`, and TESTING.md for why): plain plotly figures,
plotly.js inlined once, and a small script of our own (:mod:`.diff_report_js`) for the linked
selection — a click on a tensor or op of either graph (or a memory block) selects it and its
counterpart, rings both, outlines both memory blocks and shows the pair's before → after table.

Per plan the page embeds both graph figures, the paired memory figure, the pairing (values and
instructions, both directions) and the details HTML of every tensor pair and instruction pair,
precomputed in Python (escaped when built) and stored once per pair. Everything sits in one
``<script type="application/json">`` block written with :func:`.escape.script_json`.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
from plotly.offline import get_plotlyjs

from ..analysis.diff import ProgramDiff
from ..model import Program
from .details import CSS
from .diff_details import (
    EMPTY_DETAILS,
    instruction_pair_details,
    pair_details,
    summary_html,
)
from .diff_figures import (
    diff_graph_figure,
    diff_memory_figure,
    graph_height,
    memory_lanes,
    ring_trace_index,
)
from .diff_prepare import (
    SIDES,
    DiffPlanView,
    DiffSelection,
    default_diff_plan,
    diff_plan_view,
    open_diff,
)
from .diff_report_js import SCRIPT
from .diff_style import DIFF_CSS
from .escape import html_attr, html_text, script_json
from .graph import TRACE
from .palette import OP_STYLES
from .requirements_html import REQ_CSS, requirements_diff_html

__all__ = ["diff_report_html", "write_diff_report", "plan_payload"]

_PAGE_CSS = """
body{margin:0;background:#F6F8FA}
.dx-page{max-width:1440px;margin:0 auto;padding:14px 18px 28px}
.dx-row{display:flex;flex-wrap:wrap;gap:12px;align-items:stretch;margin-top:10px}
.dx-card{background:#fff;border:1px solid #D0D7DE;border-radius:8px;padding:6px;min-width:0}
.dx-half{flex:1 1 520px}
.dx-card h3{font-size:13px;margin:2px 4px 6px;color:#1F2328}
#dx-details{padding:2px 8px;max-height:520px;overflow:auto}
#dx-req{padding:2px 8px}
.dx-controls{margin:8px 0 0}
.dx-controls select{font:inherit;padding:3px 6px;border:1px solid #D0D7DE;border-radius:6px;background:#fff}
"""


def _plain(obj):
    """numpy values as JSON (NaN, the edge separator, as null)."""
    if isinstance(obj, np.ndarray):
        return [None if math.isnan(x) else x for x in obj.tolist()] if obj.dtype.kind == "f" else obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    raise TypeError(f"cannot put {type(obj).__name__} in the report")


def plan_payload(dv: DiffPlanView) -> dict:
    """Everything the page script needs for one plan (see the module docstring)."""
    height = graph_height(dv)
    texts: list[str] = []
    vd: dict[str, dict[str, int]] = {"a": {}, "b": {}}
    idd: dict[str, dict[str, int]] = {"a": {}, "b": {}}
    for side in SIDES:  # one text per pair: B's half of a pair reuses A's
        for v in dv.side(side).geometry.tensors.tolist():
            other = dv.pair(side, v)
            if side == "b" and other is not None and str(other) in vd["a"]:
                vd["b"][str(v)] = vd["a"][str(other)]
                continue
            vd[side][str(v)] = len(texts)
            texts.append(pair_details(dv, side, v, full=dv.status(side).get(v, "same") != "same"))
        for i in range(len(dv.side(side).plan.instructions)):
            other = dv.instruction_pair(side, i)
            if side == "b" and other is not None and dv.instruction_pair("a", other) == i:
                idd["b"][str(i)] = idd["a"][str(other)]  # the same pair seen from B: same text
                continue
            idd[side][str(i)] = len(texts)
            texts.append(instruction_pair_details(dv, side, i))
    graphs, ring, edges, symbols = {}, {}, {}, {}
    for side in SIDES:
        view = dv.side(side)
        fig = diff_graph_figure(dv, side, height=height)
        graphs[side] = fig.to_plotly_json()
        ring[side] = ring_trace_index(fig)
        edges[side] = [[s[0], s[1], d[0], d[1]] for s, d, _ in view.geometry.edges]
        symbols[side] = {str(i): OP_STYLES[k]["symbol"] for i, k in zip(view.geometry.ops.tolist(), view.geometry.op_kinds)}
    return {
        "name": dv.diff.plan, "header": summary_html(dv),
        "requirements": requirements_diff_html(dv.diff.requirements_a, dv.diff.requirements_b, dv.name_a, dv.name_b),
        "graphs": graphs, "ring": ring, "edges": edges, "opSymbols": symbols,
        "memory": diff_memory_figure(dv).to_plotly_json(), "lanes": memory_lanes(dv),
        "pairs": {"a": {str(a): b for a, b in dv.diff.pairs.items()}, "b": {str(b): a for a, b in dv.diff.pairs.items()}},
        "ipairs": {s: {str(i): dv.instruction_pair(s, i) for i in range(len(dv.side(s).plan.instructions))
                       if dv.instruction_pair(s, i) is not None} for s in SIDES},
        "texts": texts, "vd": vd, "id": idd,
    }


def _to_json(payload: dict) -> str:
    # not plotly's encoder (it writes every "<" as \u003c); script_json makes the text script-safe instead
    return json.dumps(payload, default=_plain, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


def diff_report_html(a, b, *, plan: str | None = None, result: ProgramDiff | None = None,
                     programs: tuple[Program, Program] | None = None, selected: DiffSelection | None = None,
                     views: dict[str, DiffPlanView] | None = None, title: str | None = None) -> str:
    """The diff page as a string. ``a``/``b``: paths, bytes or Programs; ``result``/``programs``/``views``
    reuse work already done (the CLI's diff, the widget's views); ``plan`` is the plan shown first."""
    if result is None or programs is None:
        pa, pb, result = open_diff(a, b)
    else:
        pa, pb = programs
    if not result.plans:
        raise ValueError("the two programs have no plan (method) in common: nothing to compare")
    views = dict(views or {})
    for p in result.plans:
        if p.plan not in views:
            views[p.plan] = diff_plan_view(result, pa, pb, p.plan)
    first = plan or default_diff_plan(result)
    shown = next(iter(views.values()))
    payload = {"trace": TRACE, "plan": first, "empty": EMPTY_DETAILS,
               "plans": [plan_payload(views[p.plan]) for p in result.plans],
               "selected": selected.to_json() if selected else None}
    name = title or f"{shown.name_a} → {shown.name_b}"
    options = "".join(f"<option value=\"{html_attr(p.plan)}\">{html_text(p.plan)}</option>" for p in result.plans)
    only = [f"plans only in A: {', '.join(result.plans_only_a)}"] if result.plans_only_a else []
    only += [f"plans only in B: {', '.join(result.plans_only_b)}"] if result.plans_only_b else []
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html_text(name)} · placement diff · ExecuTorch device explorer</title>
<style>{CSS}{DIFF_CSS}{REQ_CSS}{_PAGE_CSS}</style>
<script>{get_plotlyjs()}</script>
</head><body><div class="dx-page dx-root dx-diff">
<div id="dx-header"></div>
<div class="dx-controls"{'' if len(result.plans) > 1 or only else ' hidden'}><label class="dx-muted">plan
 <select id="dx-plan"{' disabled' if len(result.plans) < 2 else ''}>{options}</select></label>
 <span class="dx-muted">{html_text(' · '.join(only))}</span></div>
<div class="dx-row">
 <div class="dx-card dx-half"><h3><span class="dx-side-a">A</span>{html_text(shown.name_a)} <span class="dx-muted">(before)</span></h3><div id="dx-graph-a"></div></div>
 <div class="dx-card dx-half"><h3><span class="dx-side-b">B</span>{html_text(shown.name_b)} <span class="dx-muted">(after)</span></h3><div id="dx-graph-b"></div></div>
</div>
<div class="dx-row">
 <div class="dx-card" style="flex:3 1 520px"><h3>Details <span class="dx-muted">— the selection and its counterpart</span></h3><div id="dx-details"></div></div>
 <div class="dx-card" style="flex:2 1 380px"><h3>Runtime needs <span class="dx-muted">— what the runtime must provide, A vs B</span></h3><div id="dx-req"></div></div>
</div>
<div class="dx-row"><div class="dx-card" style="flex:1 1 100%"><h3>Memory maps <span class="dx-muted">— per arena pair, A's lane above B's;
 each tensor spans its lifetime (x, instructions of its own program) and bytes (y, one scale per pair)</span></h3>
 <div id="dx-memory"></div></div></div>
<p class="dx-muted">Made by executorch-device-explorer from {html_text(name)}; works offline.</p>
</div>
<script type="application/json" id="dx-data">{script_json(encoded=_to_json(payload))}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def write_diff_report(a, b, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`diff_report_html` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(diff_report_html(a, b, **kwargs), encoding="utf-8")
    return out
