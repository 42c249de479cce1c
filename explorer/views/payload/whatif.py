"""A what-if in the app: the diff of original vs predicted, carrying the moves that made it.

One payload for every entry point, so they answer the same: ``device-explorer whatif FILE --move ... -o r.html``,
``device-explorer show FILE --move ... -o r.html``, ``Explorer(FILE, moves=[...]).save_html(...)`` and the widget
itself when its ``moves`` change. It is :func:`.diff.diff_payload` of (original, predicted) plus ``"whatif"``
(:func:`whatif_block`): the moves, the file and flags the browser writes the CLI line and the Python call from
(``explorer/frontend``'s moves module), and per re-derived plan the original instructions each predicted one
stands for, so a selection on the predicted side maps back to the selector a user would write.

The page cannot predict: the emulation of executorch (:mod:`explorer.whatif`) is Python. A report keeps the
moves a user adds in the browser as a pending list with the command that predicts them (docs/whatif.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.model.program import Program
from explorer.views.payload.app import TABLE_KEYS, flag_block, flag_words, program_source
from explorer.views.payload.context import context_columns
from explorer.views.payload.diff import diff_payload, diff_views
from explorer.views.state.diff import open_diff
from explorer.views.state.plan import PlanView

__all__ = ["whatif_block", "whatif_payload", "resolve_base", "BASE"]

# the key of a reference into the widget's app payload, and of the list of where they are (whatif_payload base=)
BASE = "$base"


def whatif_block(original: Program, predicted: Program) -> dict:
    """``"whatif"`` of a prediction: ``moves`` (``"SELECTOR=DEVICE"`` in the order applied), what the commands run
    on (``file``, ``program``, ``nofile``: :func:`~explorer.views.payload.app.program_source` of the original), the flags
    as set (``flags``, ``method``: :func:`~explorer.views.payload.app.flag_block`, the page's toggles start from them), the flags
    as CLI words (``cli``) and as Python keyword arguments (``py``, literals written by ``repr``), and ``origins``:
    per re-derived plan, columns ``start`` / ``orig`` — predicted instruction ``i`` stands for original
    instructions ``orig[start[i]:start[i + 1]]`` (none: a copy the prediction inserted)."""
    pred = predicted.prediction
    if pred is None:
        raise ValueError("whatif_block needs a program explorer.what_if predicted")
    cli, py = flag_words(pred)
    origins = {}
    for plan, rows in pred.origins.items():
        start = np.zeros(len(rows) + 1, dtype=np.int64)
        start[1:] = np.cumsum([len(r) for r in rows])
        orig = np.fromiter((k for r in rows for k in r), dtype=np.int64, count=int(start[-1]))
        origins[plan] = {"start": start, "orig": orig}
    return {**program_source(original), **flag_block(pred), "moves": [f"{s}={d}" for s, d in pred.moves],
            "cli": cli, "py": py, "origins": origins}


def whatif_payload(original: Program, predicted: Program, *, plan: str | None = None, result=None,
                   views: dict | None = None, lazy: bool = False, base: dict[str, PlanView] | None = None) -> dict:
    """The app's diff mode over original (A) and predicted (B), with ``"whatif"``. ``result``: their
    :class:`~explorer.analysis.diff.compare.ProgramDiff` if already made (the CLI's review has one); ``views``:
    a dict the plans' :class:`~explorer.views.state.diff.DiffPlanView` are put in (the widget answers the page's
    requests from them); ``lazy``: the changed pairs' texts are sent on request (``diff.lod_plan_payload``).

    ``base`` (the widget): the original's plan views, those its app payload (:func:`.app.app_payload`, which the page
    has decoded and drawn already) was made from. A reuses them, analysis included, and A's tables (``TABLE_KEYS``,
    and with an ETRecord its context) are not sent again: each is a reference ``{"$base": path}`` into that
    payload, and ``payload["$base"]`` lists where they are (:func:`resolve_base`; the page: ``host/base.js``). Only
    the predicted side and the pairing are made anew on a move."""
    analyses: tuple[dict, dict] = ({name: v.analysis for name, v in base.items()} if base else {}, {})
    if result is None:
        _pa, _pb, result = open_diff(original, predicted, analyses=analyses)
    if plan is not None and plan not in {p.plan for p in result.plans}:
        plan = None
    made = diff_views(result, original, predicted, analyses=analyses, sides_a=base)
    if views is not None:
        views.update(made)
    payload = diff_payload(result, made, plan=plan, lazy=lazy, base=base is not None)
    payload["whatif"] = whatif_block(original, predicted)
    if original.etrecord is not None:  # the original's modules and source lines on A (the prediction has none of its own)
        for p in payload["plans"]:
            p["contexts"] = {"a": None if base is not None else context_columns(original, original.plan(p["name"])),
                             "b": None}
    if base is not None:
        _refer(payload, original)
    return payload


def _refer(payload: dict, original: Program) -> None:
    """A's tables (left ``None``) as references into the original's app payload, whose plans are the program's in
    its order (:func:`.app.app_payload`), and the list of where they are."""
    order = {name: k for k, name in enumerate(original.plan_names)}
    slots: list[list] = []
    for j, p in enumerate(payload["plans"]):
        k = order[p["name"]]
        for key in TABLE_KEYS:
            p["sides"]["a"][key] = {BASE: ["plans", k, key]}
            slots.append(["plans", j, "sides", "a", key])
        if "contexts" in p:
            p["contexts"]["a"] = {BASE: ["plans", k, "context"]}  # app_payload's plans[k].context (absent: None)
            slots.append(["plans", j, "contexts", "a"])
    payload[BASE] = slots


def resolve_base(payload: dict, original: dict) -> dict:
    """``payload`` (a widget's what-if, unpacked) as the page draws it: each reference ``payload["$base"]`` lists
    replaced by what it names in ``original`` (the widget's app payload, unpacked; a key it lacks gives ``None``),
    in place; returned. What the page's ``resolveBase`` (``explorer/frontend/host/base.js``) does."""
    for slot in payload.pop(BASE, []):
        parent = payload
        for key in slot[:-1]:
            parent = parent[key]
        target: Any = original
        for key in parent[slot[-1]][BASE]:
            target = None if target is None else target.get(key) if isinstance(target, dict) else target[key]
        parent[slot[-1]] = target
    return payload
