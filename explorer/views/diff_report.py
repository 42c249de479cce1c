"""Static, offline HTML of a placement diff: ``device-explorer diff A B --html out.html`` and ``Diff.save_html``.

The same page as the one-program report (:func:`.report.page_html`): plotly.js and the app's modules
inlined once, the app in its two-program mode (``explorer/frontend/diff.js``) — a click on a tensor
or op of either graph (or a memory block) selects it and its counterpart, rings both, outlines both
memory blocks and shows the pair's before → after table.

Per plan the page carries each side as the one-program payload of that plan plus the diff as columns
(:func:`lod_plan_payload`), drawn by the same modules as one program (``explorer/frontend/diff_lod.js``),
at every size; packed by :mod:`.embed`.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..analysis.diff import STATUSES, ProgramDiff
from ..model import Program
from .diff_details import EMPTY_DETAILS, pair_details, summary_html
from .diff_prepare import (
    SIDES,
    DiffPlanView,
    DiffSelection,
    default_diff_plan,
    diff_plan_view,
    open_diff,
)
from .escape import visible
from .diff_style import OP_STATUS_STYLES, STATUS_STYLES, status_badge
from .overview import TRACE
from .report import page_html
from .requirements_html import requirements_diff_html

__all__ = ["diff_report_html", "write_diff_report", "plan_payload", "lod_plan_payload", "diff_marks", "diff_payload"]



def plan_payload(dv: DiffPlanView) -> dict:
    """Everything the page script needs for one plan (see the module docstring)."""
    return lod_plan_payload(dv)


def lod_plan_payload(dv: DiffPlanView) -> dict:
    """A pair, at any size: each side exactly as the one-program report sends a plan (the column tables the
    app folds, lays out and describes in the browser), plus the diff as columns (:func:`diff_marks`) and the
    before → after table of every *changed* tensor pair. Unchanged pairs and instructions are described in the
    browser from the two sides' tables, so the page grows with what changed, not with the programs."""
    from .report import _plan_payload

    texts: list[str] = []
    vd: dict[str, dict[str, list[int]]] = {s: {"v": [], "t": []} for s in SIDES}
    seen: dict[int, int] = {}  # A value -> its pair's text
    for side in SIDES:
        for v, status in sorted(dv.status(side).items()):
            if status == "same":
                continue
            other = dv.pair(side, v)
            a_v = v if side == "a" else other
            if side == "b" and a_v is not None and a_v in seen:
                k = seen[a_v]
            else:
                k = len(texts)
                texts.append(pair_details(dv, side, v))
                if a_v is not None:
                    seen[a_v] = k
            vd[side]["v"].append(v)
            vd[side]["t"].append(k)
    return {
        "name": dv.diff.plan, "label": visible(dv.diff.plan), "header": summary_html(dv),
        "requirements": requirements_diff_html(dv.diff.requirements_a, dv.diff.requirements_b, dv.name_a, dv.name_b),
        "lod": True,
        "sides": {s: _plan_payload(dv.side(s), [], []) for s in SIDES},
        **diff_marks(dv),
        "texts": texts, "vd": vd,
    }


def diff_marks(dv: DiffPlanView) -> dict:
    """The diff as columns: per side the changed tensors and instructions with a status code (an index into
    ``statuses``), the value pairing (A values, B values) and the instruction pairing of each side, and a
    badge (escaped HTML) per status."""
    tensor_codes = {s: k for k, s in enumerate(STATUSES)}
    op_names = tuple(OP_STATUS_STYLES)
    op_codes = {s: k for k, s in enumerate(op_names)}
    marks = {}
    for side in SIDES:
        changed = sorted((v, s) for v, s in dv.status(side).items() if s != "same")
        ops = sorted(dv.op_status(side).items())
        marks[side] = {"v": [v for v, _ in changed], "vs": [tensor_codes[s] for _, s in changed],
                       "i": [i for i, _ in ops], "is": [op_codes[s] for _, s in ops]}
    pairs = sorted(dv.diff.pairs.items())
    ipairs = {}
    for side in SIDES:
        mine = [(i, dv.instruction_pair(side, i)) for i in range(len(dv.side(side).plan.instructions))]
        mine = [(i, o) for i, o in mine if o is not None]
        ipairs[side] = {"i": [i for i, _ in mine], "o": [o for _, o in mine]}

    def style(table, name):
        st = table.get(name)
        return {"name": name, "color": st.color if st else None, "width": st.width if st else 0,
                "label": st.label if st else "unchanged"}

    return {
        "marks": marks,
        "statuses": {"tensor": [style(STATUS_STYLES, s) for s in STATUSES],
                     "op": [style(OP_STATUS_STYLES, s) for s in op_names]},
        "badges": {"tensor": [status_badge(s) for s in STATUSES], "op": [status_badge(s, op=True) for s in op_names],
                   "same": status_badge("same")},
        "pairs": {"a": [a for a, _ in pairs], "b": [b for _, b in pairs]},
        "ipairs": ipairs,
    }


def diff_payload(result: ProgramDiff, views: dict[str, DiffPlanView], *, plan: str | None = None,
                 selected: DiffSelection | None = None, title: str | None = None, profiles=None,
                 programs: tuple[Program, Program] | None = None) -> dict:
    """Everything the app's diff mode draws: every common plan, both names, the first selection.
    The Diff widget sends the same payload as the page embeds. ``profiles``: (profile of A, profile of B),
    joined run profiles compared per paired instruction and per device (docs/profiles.md). ``programs``: when
    either has an ETRecord joined, each plan gets ``contexts: {"a", "b"}`` (``views/context_payload.py``)."""
    shown = views[result.plans[0].plan]
    only = [f"plans only in A: {', '.join(result.plans_only_a)}"] if result.plans_only_a else []
    only += [f"plans only in B: {', '.join(result.plans_only_b)}"] if result.plans_only_b else []
    out = {"mode": "diff", "title": visible(title or f"{shown.name_a} → {shown.name_b}"),
            "nameA": visible(shown.name_a), "nameB": visible(shown.name_b), "only": visible(" · ".join(only)),
            "trace": TRACE, "plan": plan or default_diff_plan(result), "empty": EMPTY_DETAILS,
            "plans": [plan_payload(views[p.plan]) for p in result.plans],
            "selected": selected.to_json() if selected else None}
    if profiles is not None:
        from .profile_payload import attach_profile_pair
        attach_profile_pair(out, views, profiles)
    if programs is not None and any(p.etrecord is not None for p in programs):
        from .context_payload import context_columns
        for p in out["plans"]:
            name = p.get("name")
            p["contexts"] = {side: context_columns(prog, prog.plan(name)) if name in prog.plan_names else None
                             for side, prog in zip(("a", "b"), programs)}
    return out


def diff_views(result: ProgramDiff, pa: Program, pb: Program,
               views: dict[str, DiffPlanView] | None = None) -> dict[str, DiffPlanView]:
    """A view per common plan, reusing ``views`` made already."""
    views = dict(views or {})
    for p in result.plans:
        if p.plan not in views:
            views[p.plan] = diff_plan_view(result, pa, pb, p.plan)
    return views


def diff_report_html(a, b, *, plan: str | None = None, result: ProgramDiff | None = None,
                     programs: tuple[Program, Program] | None = None, selected: DiffSelection | None = None,
                     views: dict[str, DiffPlanView] | None = None, title: str | None = None, profiles=None) -> str:
    """The diff page as a string. ``a``/``b``: paths, bytes or Programs; ``result``/``programs``/``views``
    reuse work already done (the CLI's diff, the widget's views); ``plan`` is the plan shown first."""
    if result is None or programs is None:
        pa, pb, result = open_diff(a, b)
    else:
        pa, pb = programs
    if not result.plans:
        raise ValueError("the two programs have no plan (method) in common: nothing to compare")
    views = diff_views(result, pa, pb, views)
    payload = diff_payload(result, views, plan=plan, selected=selected, title=title, profiles=profiles,
                           programs=(pa, pb))
    shown = views[result.plans[0].plan]
    name = title or f"{shown.name_a} → {shown.name_b}"
    return page_html(f"{name} · placement diff", payload)


def write_diff_report(a, b, path: str | os.PathLike, **kwargs) -> Path:
    """Write :func:`diff_report_html` to ``path`` (UTF-8) and return the path."""
    out = Path(path)
    out.write_text(diff_report_html(a, b, **kwargs), encoding="utf-8")
    return out
